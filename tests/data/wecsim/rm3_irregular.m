%% Simulation Data
simu = simulationClass();               % Initialize Simulation Class
simu.simMechanicsFile = 'RM3.slx';      % Specify Simulink Model File
simu.mode = 'normal';                   % Specify Simulation Mode ('normal','accelerator','rapid-accelerator')
simu.explorer = 'on';                   % Turn SimMechanics Explorer (on/off)
simu.startTime = 0;                     % Simulation Start Time [s]
simu.rampTime = 100;                    % Wave Ramp Time [s]
simu.endTime = 400;                     % Simulation End Time [s]
simu.solver = 'ode4';                   % simu.solver = 'ode4' for fixed step & simu.solver = 'ode45' for variable step
simu.dt = 0.1;                          % Simulation time-step [s]
simu.cicEndTime = 30;                   % Specify CI Time [s]

%% Wave Information
% Irregular Waves using JONSWAP Spectrum
waves = waveClass('irregular');         % Initialize Wave Class and Specify Type
waves.height = 2.5;                     % Wave Height [m]
waves.period = 8;                       % Wave Period [s]
waves.spectrumType = 'JS';              % Specify Wave Spectrum Type
waves.bem.option = 'EqualEnergy';       % Uses 'EqualEnergy' bins (default)
waves.phaseSeed = 1;                    % Phase Seed

%% Body Data
% Float
body(1) = bodyClass('hydroData/rm3.nc');        % (WEC-Sim reads rm3.h5; frylinks reads either)
body(1).geometryFile = 'geometry/float.dat';    % Location of Geometry File
body(1).mass = 'equilibrium';                   % Body Mass
body(1).inertia = [20907301 21306090.66 37085481.11];  % Moment of Inertia [kg*m^2]
body(1).centerGravity = [0 0 -0.72];            % (rm3.h5 holds it; rm3.nc does not)

% Spar/Plate
body(2) = bodyClass('hydroData/rm3.nc');
body(2).geometryFile = 'geometry/plate.dat';
body(2).mass = 'equilibrium';
body(2).inertia = [94419614.57 94407091.24 28542224.82];
body(2).centerGravity = [0 0 -21.29];

%% PTO and Constraint Parameters
% Floating (3DOF) Joint
constraint(1) = constraintClass('Constraint1'); % Initialize Constraint Class for Constraint1
constraint(1).location = [0 0 0];               % Constraint Location [m]

% Translational PTO
pto(1) = ptoClass('PTO1');                      % Initialize PTO Class for PTO1
pto(1).stiffness = 0;                           % PTO Stiffness [N/m]
pto(1).damping = 1200000;                       % PTO Damping [N/(m/s)]
pto(1).location = [0 0 0];                      % PTO Location [m]
